# The 2015 handout (and Fall 2014's): lib/hset.h over our tables. The
# Makefile of ../cmu15122, laid first, reads this file.
TABLE = hset
TABLE_LIB = lib/hset.c
