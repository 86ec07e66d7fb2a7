"""The benchmark's workloads, one module each: (a) `parse`, (b) `warm`, (c) `cold`, (d)
`memory`, (e) `scaling`, (f) `adversarial`, (g) `worst`, (i) `imports`. Each exposes one
``bench_*`` function that measures, prints its section through a `bench_report.Report` and
stores its JSON under one key; `benchmarks/run.py` calls them."""
