/* The handout's queues (queues.h) over our common ones (queue.c), whose
 * queue_t is the same pointer type. */
#include "queue.h"
#include "queues.h"
