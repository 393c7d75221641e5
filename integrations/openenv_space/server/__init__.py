"""The OpenEnv server of the officegym Space: ``server/app.py`` (see the Space's README.md)."""
