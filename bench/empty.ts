// The floor for `omp --version`: a program that does nothing, compiled with omp's flags.
