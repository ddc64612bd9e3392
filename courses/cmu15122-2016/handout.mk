# The handouts whose lib/hdict.h maps keys to values (2016; by the
# 2019-20 handout it held entries): over our tables
# (../cmu15122/lib/kv.c), and lib/heap.h (../cmu15122-hdict). The
# Makefile of ../cmu15122, laid first, reads this file.
TABLE = hdict
TABLE_LIB = lib/hdict.c lib/heap.c
