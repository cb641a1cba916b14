"""Speed, scale and quality benchmarks; results with machine and command in README.md."""
