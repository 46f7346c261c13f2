# the fixture-making scripts under data/ need the evaluation tools, which are
# never installed with the package: they are run by hand, not collected
collect_ignore_glob = ["data/*"]
