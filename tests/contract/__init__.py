"""The domain contract suite: every test here runs on every registered officegym env id (the shipped ones and
the example domain), so a new domain gets the whole suite by adding its id to ``officegym.ENV_IDS``."""
