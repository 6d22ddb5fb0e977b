package org.clustersim.topology;

import java.util.Arrays;

/**
 * Routes by a packed (source, destination, channel) key, in an open-addressing table with
 * linear probing. A {@code HashMap<Long, Route>} boxed every key and, with keys made of small
 * device numbers, folded them into a few thousand buckets that it then had to turn into trees:
 * looking routes up was a tenth of a 16,384-GPU step. Here each key is scrambled by the
 * SplitMix64 finaliser before it picks a slot.
 */
final class RouteCache {
    private static final long EMPTY = Long.MIN_VALUE;
    private long[] keys;
    private Route[] values;
    private int size;

    RouteCache() {
        allocate(1 << 10);
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        Arrays.fill(keys, EMPTY);
        values = new Route[capacity];
        size = 0;
    }

    /** The route stored under {@code key}, or null. Keys must not be {@link Long#MIN_VALUE}. */
    Route get(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            long k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == EMPTY) {
                return null;
            }
        }
    }

    /** Stores {@code route} under {@code key}, replacing what was there. */
    void put(long key, Route route) {
        if (key == EMPTY) {
            throw new IllegalArgumentException("reserved key");
        }
        if ((size + 1) * 4L > keys.length * 3L) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                values[i] = route;
                return;
            }
            if (keys[i] == EMPTY) {
                keys[i] = key;
                values[i] = route;
                size++;
                return;
            }
        }
    }

    int size() {
        return size;
    }

    /** Forgets every route (the table keeps its size). */
    void clear() {
        Arrays.fill(keys, EMPTY);
        Arrays.fill(values, null);
        size = 0;
    }

    private void grow() {
        long[] oldKeys = keys;
        Route[] oldValues = values;
        allocate(oldKeys.length * 2);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int slot(long key, int mask) {
        long z = key;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return (int) (z ^ (z >>> 31)) & mask;
    }
}
