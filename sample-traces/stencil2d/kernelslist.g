MemcpyHtoD,0x00007f1000000000,32768
kernel-1.traceg.xz
