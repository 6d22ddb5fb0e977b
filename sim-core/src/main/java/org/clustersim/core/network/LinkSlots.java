package org.clustersim.core.network;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Per link, the entries on it (flows, or flow classes) in slots [0, count). Each entry keeps its
 * slot on each of its links in an int array of its own, at an index the entry chose (a flow's
 * hop, a class's link position); the link keeps that index beside the entry. So an entry leaves
 * a link in constant time: the link's last entry moves into its slot, and the index says which
 * of the moved entry's slots to rewrite, without searching the moved entry's links.
 *
 * @param <E> the entries
 */
final class LinkSlots<E> {
    private final Object[][] entries;
    /** Per link and slot, the index of this link among its entry's slots. */
    private final int[][] index;
    private final int[] count;
    private final Function<E, int[]> slotsOf;
    private final int initial;

    /**
     * @param links   number of links
     * @param initial slots a link gets on its first entry (they double as needed)
     * @param slotsOf an entry's slot per link of its own, written here as it joins and moves
     */
    LinkSlots(int links, int initial, Function<E, int[]> slotsOf) {
        this.entries = new Object[links][];
        this.index = new int[links][];
        this.count = new int[links];
        this.slotsOf = slotsOf;
        this.initial = initial;
    }

    /** Puts {@code e} on {@code link}, recording its slot at {@code slotsOf(e)[at]}. */
    void add(int link, E e, int at) {
        Object[] on = entries[link];
        int n = count[link];
        if (on == null) {
            on = new Object[initial];
            entries[link] = on;
            index[link] = new int[initial];
        } else if (n == on.length) {
            on = Arrays.copyOf(on, n * 2);
            entries[link] = on;
            index[link] = Arrays.copyOf(index[link], n * 2);
        }
        on[n] = e;
        index[link][n] = at;
        slotsOf.apply(e)[at] = n;
        count[link] = n + 1;
    }

    /** Takes the entry in {@code slot} off {@code link}; the link's last entry moves into the slot. */
    @SuppressWarnings("unchecked")
    void remove(int link, int slot) {
        int last = --count[link];
        Object[] on = entries[link];
        E moved = (E) on[last];
        on[last] = null;
        if (slot != last) {
            int movedAt = index[link][last];
            on[slot] = moved;
            index[link][slot] = movedAt;
            slotsOf.apply(moved)[movedAt] = slot;
        }
    }

    /** Number of entries on {@code link}. */
    int count(int link) {
        return count[link];
    }

    /** The entry in {@code slot} of {@code link}. */
    @SuppressWarnings("unchecked")
    E at(int link, int slot) {
        return (E) entries[link][slot];
    }

    /** The entries on {@code link}, a view valid until the link next changes. */
    @SuppressWarnings("unchecked")
    List<E> list(int link) {
        return entries[link] == null ? List.of() : (List<E>) Arrays.asList(entries[link]).subList(0, count[link]);
    }
}
