// Tiled matrix multiplication C = A * B for square matrices.
#define TILE 16

__device__ float dot_tile(float a, float b, float acc) {
    return acc + a * b;
}

__global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) {
            acc = dot_tile(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        }
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}

void host() {
    const int n = 256;
    float* A = device_array<float>(n * n, uniform(-1.0f, 1.0f));
    float* B = device_array<float>(n * n, uniform(-1.0f, 1.0f));
    float* C = device_array<float>(n * n);
    dim3 block(TILE, TILE);
    matmul<<<dim3(n / TILE, n / TILE), block>>>(A, B, C, n);
}
