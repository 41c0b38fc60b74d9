MemcpyHtoD,0x00007f1000000000,2097056
kernel-1.traceg.xz
