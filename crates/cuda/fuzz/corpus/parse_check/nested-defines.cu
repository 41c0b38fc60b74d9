#define A 1
#define B (A + A)
#define C (B * B)
__global__ void k(int* p) { __shared__ int s[C][C]; s[0][0] = p[0]; }
void host() {}
