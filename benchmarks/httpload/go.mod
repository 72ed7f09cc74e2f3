module fakeapi/benchmarks/httpload

go 1.23
