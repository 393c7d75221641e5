"""VendorReview-v2: labels that follow from values against the buyer's bar, and a test split written in words
no training deal uses.

Each requirement is a claim with a value (``claims.py``); the buyer's pass bar is a condition on it, drawn per
deal, so the same vendor sentence meets one buyer's bar and misses another's. ``plan.py`` draws a deal from a
seed, ``compose.py`` writes its documents from the split's own prose pools, ``deals.py`` serves deals by task
id, ``env.py`` is the Gymnasium face. The runtime (tools, episode, grading, catalogue) is the shared one.
"""
