# The 2025 handout: lib/hdict.h of entries (the 2022 overlay, laid before
# this one) and bit vectors with index_t and bitvector_free.
TABLE = hdict
CFLAGS += -DBITVECTOR_FREE
