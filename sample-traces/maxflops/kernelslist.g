kernel-1.traceg.xz
