"""v2 generates nothing: its companies and tasks are v1's (``v1/authoring``), loaded through ``v2/bundle.py``."""
