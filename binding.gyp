{
  "targets": [
    {
      "target_name": "toolwright_spawn",
      "sources": ["native/spawn.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "conditions": [["OS!='linux'", {"type": "none", "sources": []}]]
    }
  ]
}
