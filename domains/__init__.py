"""The shipped worlds, one folder each: domain.json, the world's README (semantics and
deviations from its reference), its prompts, and its plug-ins (metrics, generators, importers),
found by `groundplan.engine.loader.world_module`. A regular package so that its worlds import as
`groundplan.domains.<world>` from a checkout and from a wheel alike."""
