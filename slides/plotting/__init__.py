"""The functions that draw the slides' figures and tables, one file a family of decks; slides/plot.py
names which function draws each figure or table and is the one way in."""
