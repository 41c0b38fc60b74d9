MemcpyHtoD,0x00007f1000000000,655360
kernel-1.traceg.xz
