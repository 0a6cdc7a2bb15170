// An empty program: the cold-start floor `deno task bench` compares `--version` with.
