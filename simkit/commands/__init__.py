"""The `simkit` commands, grouped by what they do (simkit/cli.py registers them):
`runs` play games of one lineup, `studies` compare configs, runs and strategies."""
