"""The shipped problem sets (data only), one folder each, named as `plan-eval` and `groundplan`
accept them (`groundplan.engine.problemsets`). A regular package so that it installs as
`groundplan.problems` from a checkout and from a wheel alike."""
