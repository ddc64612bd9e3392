# The handouts whose lib/hdict.h holds entries (the 2019-20 handout to
# 2024's): over our tables (../cmu15122/lib/kv.c), and lib/heap.h
# (../cmu15122-hdict), which the 2019-20 handout still had. The Makefile
# of ../cmu15122, laid first, reads this file.
TABLE = hdict
TABLE_LIB = lib/hdict.c lib/heap.c
