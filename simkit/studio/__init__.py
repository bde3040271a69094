"""`simkit studio`: change a number, watch the verdicts move, live in the browser.

The studio plays an edited config on the same deals as the baseline (the config as
loaded), in small slices, and shows the report's figures for both and their paired
difference as the games arrive (docs/studio.md). One job per module:
- `form.py`: the config as form fields (what `simkit show` lists, with choices);
- `session.py`: the baseline, the edits tried and their outcomes (studio.json);
- `games.py`: the games played so far of one config, grown a slice at a time;
- `figures.py`: the report's figures of the games so far, baseline and changed;
- `live.py`: the work in flight for the current edit (cancelled by the next);
- `actions.py`: patch.toml, the whole config, the CLI command, the full report;
- `app.py`: the web app (Starlette, htmx, server-sent events).
"""
