# The later 15-122 handouts: their hash tables are lib/hdict.{c,h} (which
# of the two hdict interfaces: the overlay laid after this one). The
# Makefile of ../cmu15122, laid first, reads this file.
TABLE = hdict
