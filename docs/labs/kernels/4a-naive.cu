// Lab 4, step 4a: the naive transpose. Each thread copies one element:
// it reads in[y][x] and writes out[x][y]. A warp's 32 threads have
// consecutive x, so its read is one row of 128 bytes, but its write is one
// column: 32 elements a whole row (4 KB) apart.
#define WIDTH 512
#define TILE 32

__global__ void transpose_naive(const float* in, float* out, int width) {
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    out[x * width + y] = in[y * width + x];
}

void host() {
    float* in = device_array<float>(WIDTH * WIDTH, uniform(-1.0f, 1.0f));
    float* out = device_array<float>(WIDTH * WIDTH);
    transpose_naive<<<dim3(WIDTH / TILE, WIDTH / TILE), dim3(TILE, TILE)>>>(in, out, WIDTH);
}
