MemcpyHtoD,0x00007f1000000000,524288
kernel-1.traceg.xz
