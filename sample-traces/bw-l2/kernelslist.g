MemcpyHtoD,0x00007f1000000000,3145728
kernel-1.traceg.xz
