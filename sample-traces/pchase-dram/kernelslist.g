MemcpyHtoD,0x00007f1000000000,25165824
kernel-1.traceg.xz
