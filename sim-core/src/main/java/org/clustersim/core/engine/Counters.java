package org.clustersim.core.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Numeric tracks over simulated time (link throughput, later memory per device), recorded as
 * compact arrays of (track, time, change) rather than one object per sample. A change may be
 * recorded ahead of time (a flow's end is known when it starts); {@link #series(int)} sorts
 * and accumulates them.
 */
public final class Counters {
    /** Per track, its name, or null while it is still to be made by {@link #namers}. */
    private final List<String> names = new ArrayList<>();
    private final List<java.util.function.Supplier<String>> namers = new ArrayList<>();
    private final List<String> units = new ArrayList<>();
    private final Map<String, Integer> byName = new HashMap<>();
    /** Tracks created with {@link #trackNamedLater} and not yet in {@link #byName}, in creation order. */
    private final List<Integer> unnamed = new ArrayList<>();
    private int[] track = new int[256];
    private long[] time = new long[256];
    private double[] delta = new double[256];
    private int size;

    /** The track of that name, created on first use. */
    public int track(String name, String unit) {
        nameAll();
        Integer id = byName.get(name);
        if (id != null) {
            return id;
        }
        int n = names.size();
        names.add(name);
        namers.add(null);
        units.add(unit);
        byName.put(name, n);
        return n;
    }

    /**
     * A new track whose name is made when first read: the caller guarantees no other track has
     * that name (the flow model keeps one track per link, and a 16,384-GPU all-reduce starts
     * 100 K of them, whose names it would otherwise build as they start).
     */
    public int trackNamedLater(java.util.function.Supplier<String> name, String unit) {
        int n = names.size();
        names.add(null);
        namers.add(name);
        units.add(unit);
        unnamed.add(n);
        return n;
    }

    /** Makes the names still to be made, so that {@link #byName} holds every track. */
    private void nameAll() {
        if (unnamed.isEmpty()) {
            return;
        }
        for (int t : unnamed) {
            byName.put(name(t), t);
        }
        unnamed.clear();
    }

    /** Number of tracks. */
    public int trackCount() {
        return names.size();
    }

    public String name(int track) {
        String name = names.get(track);
        if (name == null) {
            name = namers.get(track).get();
            names.set(track, name);
            namers.set(track, null);
        }
        return name;
    }

    public String unit(int track) {
        return units.get(track);
    }

    /** Adds {@code change} to a track's value from {@code timeNs} on. */
    public void add(int trackId, long timeNs, double change) {
        if (size == time.length) {
            int cap = size * 2;
            track = Arrays.copyOf(track, cap);
            time = Arrays.copyOf(time, cap);
            delta = Arrays.copyOf(delta, cap);
        }
        track[size] = trackId;
        time[size] = timeNs;
        delta[size] = change;
        size++;
    }

    /**
     * Forgets every change recorded on the tracks whose names match (the tracks stay, empty): a
     * run that recorded link throughput only for a report's heat map leaves it out of the trace.
     */
    public void discard(java.util.function.Predicate<String> trackName) {
        boolean[] drop = new boolean[names.size()];
        for (int t = 0; t < drop.length; t++) {
            drop[t] = trackName.test(name(t));
        }
        int kept = 0;
        for (int i = 0; i < size; i++) {
            if (!drop[track[i]]) {
                track[kept] = track[i];
                time[kept] = time[i];
                delta[kept] = delta[i];
                kept++;
            }
        }
        size = kept;
    }

    /**
     * Every track's value over time: per track one sample per instant at which it changed,
     * starting from 0. Changes at the same instant are merged; values within 1e-9 of zero are
     * written as 0. One sort over all recorded changes.
     */
    public List<Series> allSeries() {
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> track[a] != track[b] ? Integer.compare(track[a], track[b])
                : time[a] != time[b] ? Long.compare(time[a], time[b]) : Integer.compare(a, b));
        List<Series> out = new ArrayList<>(names.size());
        int k = 0;
        for (int tr = 0; tr < names.size(); tr++) {
            int from = k;
            while (k < size && track[order[k]] == tr) {
                k++;
            }
            long[] outTime = new long[k - from];
            double[] outValue = new double[k - from];
            int m = 0;
            double value = 0;
            for (int j = from; j < k; j++) {
                int i = order[j];
                value += delta[i];
                if (m > 0 && outTime[m - 1] == time[i]) {
                    outValue[m - 1] = clean(value);
                } else {
                    outTime[m] = time[i];
                    outValue[m] = clean(value);
                    m++;
                }
            }
            out.add(new Series(tr, Arrays.copyOf(outTime, m), Arrays.copyOf(outValue, m)));
        }
        return out;
    }

    private static double clean(double v) {
        return Math.abs(v) < 1e-9 ? 0 : v;
    }

    /**
     * Samples of one track.
     *
     * @param track   the track's id
     * @param timesNs instants, increasing
     * @param values  the track's value from each instant on
     */
    public record Series(int track, long[] timesNs, double[] values) {
    }
}
