MemcpyHtoD,0x00007f1269c00000,43560
MemcpyHtoD,0x00007f1269c0ac00,4000
kernel-1-ctx_0x5607b0e17740.traceg.xz
kernel-2-ctx_0x5607b0e17740.traceg.xz
