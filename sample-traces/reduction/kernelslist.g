MemcpyHtoD,0x00007f1000000000,65536
kernel-1.traceg.xz
