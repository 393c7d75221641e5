"""Offline work every version's generator shares: names, identifiers, the company's people, common draws."""
