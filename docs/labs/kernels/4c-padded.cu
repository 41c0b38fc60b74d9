// Lab 4, step 4c: the tiled transpose with its tile padded by one column.
// A row of the tile is now 33 words long, so the 32 elements of a column
// fall in 32 different banks.
#define WIDTH 512
#define TILE 32

__global__ void transpose_padded(const float* in, float* out, int width) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}

void host() {
    float* in = device_array<float>(WIDTH * WIDTH, uniform(-1.0f, 1.0f));
    float* out = device_array<float>(WIDTH * WIDTH);
    transpose_padded<<<dim3(WIDTH / TILE, WIDTH / TILE), dim3(TILE, TILE)>>>(in, out, WIDTH);
}
