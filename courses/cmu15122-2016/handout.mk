# The 2016-2021 handouts: key/value lib/hdict.h over our tables
# (../cmu15122/lib/kv.c), and lib/heap.h. The Makefile of
# ../cmu15122, laid first, reads this file.
TABLE = hdict
TABLE_LIB = lib/hdict.c lib/heap.c
