# The 2025 handout: the 2022 library (its layer laid before this one),
# and bit vectors with index_t and bitvector_free.
TABLE = hdict
TABLE_LIB = lib/hdict.c lib/heap.c
CFLAGS += -DBITVECTOR_FREE
