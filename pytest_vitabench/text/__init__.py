"""Text facts: what English request, answer and memory text states, read lexically (no model, no network).

Shared by the built-in agents and the scripted user, which must read a fact the same way:

* :mod:`.words`: normalising, stemming, tokenising, content words;
* :mod:`.facts`: how many, which date, what time, a price cap, stated in a request or an answer;
* :mod:`.clauses`: one memory line read into evidence clauses (polarity cues, situations, thresholds);
* :mod:`.preferences`: a whole memory text, queried for the user's current view of a phrase.
"""
