package org.clustersim.core.network;

/** A growable list of ints (link ids), reused from one use to the next: the flow model's hot loops avoid boxing. */
final class IntList {
    int[] a = new int[64];
    int size;

    void add(int v) {
        if (size == a.length) {
            a = java.util.Arrays.copyOf(a, size * 2);
        }
        a[size++] = v;
    }

    void addAll(IntList other) {
        for (int i = 0; i < other.size; i++) {
            add(other.a[i]);
        }
    }

    int get(int i) {
        return a[i];
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        size = 0;
    }
}
