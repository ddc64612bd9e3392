# The handouts from 2022: lib/hdict.h of entries over our tables
# (../cmu15122/lib/kv.c). The Makefile of ../cmu15122, laid first,
# reads this file.
TABLE = hdict
TABLE_LIB = lib/hdict.c
