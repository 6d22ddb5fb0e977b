package org.clustersim.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jgrapht.Graph;

/**
 * Dimension-order routing on a TPU torus: correct axis 0, then 1, then 2, each in its shorter
 * direction (wrapping where the axis wraps). If a link on that path is down, the other axis
 * orders are tried in turn, then the longer direction on wrapped axes, and finally the
 * fewest-hop detour over live ICI links (chips forward traffic). Between slices a
 * flow leaves through its host's NIC, crosses the DCN switch and enters the other host.
 */
public final class TorusRouter implements Router {
    private final TorusSpec spec;
    private final Graph<Vertex, Link> graph;
    private final List<Vertex> devices;
    private final RouteCache cache = new RouteCache();
    private long cachedVersion = -1;
    private LinkStates cachedStates;

    TorusRouter(TorusSpec spec, Graph<Vertex, Link> graph, List<Vertex> devices) {
        this.spec = spec;
        this.graph = graph;
        this.devices = devices;
    }

    @Override
    public Route route(int src, int dst, int channel, LinkStates states) {
        boolean same = states.version() == 0 ? cachedVersion == 0
                : states == cachedStates && states.version() == cachedVersion;
        if (!same) {
            cache.clear();
            cachedStates = states;
            cachedVersion = states.version();
        }
        long key = (long) src * 1_000_003L + dst;
        Route r = cache.get(key);
        if (r == null) {
            r = compute(src, dst, states);
            cache.put(key, r);
        }
        return r;
    }

    private Route compute(int src, int dst, LinkStates states) {
        if (src == dst) {
            return new Route(List.of());
        }
        int per = spec.chipsPerSlice();
        int ps = spec.physical(src);
        int pd = spec.physical(dst);
        if (ps / per != pd / per) {
            return viaDcn(src, dst, states);
        }
        int[] from = spec.coords(ps % per);
        int[] to = spec.coords(pd % per);
        int base = (ps / per) * per;
        for (int[] order : orders(spec.dims().length)) {
            for (boolean longWay : new boolean[] {false, true}) {
                List<Link> path = walk(from, to, order, longWay, base, states);
                if (path != null) {
                    return new Route(path);
                }
            }
        }
        List<Link> detour = detour(devices.get(src), devices.get(dst), states);
        if (detour != null) {
            return new Route(detour);
        }
        throw unreachable(src, dst, states);
    }

    /** Fewest live ICI hops from a to b (chips forward on a torus); null if none. */
    private List<Link> detour(Vertex a, Vertex b, LinkStates states) {
        Map<Vertex, Link> via = new HashMap<>();
        java.util.ArrayDeque<Vertex> queue = new java.util.ArrayDeque<>();
        queue.add(a);
        via.put(a, null);
        while (!queue.isEmpty()) {
            Vertex v = queue.poll();
            if (v.equals(b)) {
                List<Link> path = new ArrayList<>();
                for (Link l = via.get(b); l != null; l = via.get(l.src())) {
                    path.add(0, l);
                }
                return path;
            }
            for (Link l : graph.outgoingEdgesOf(v)) {
                if (l.kind() == LinkKind.ICI && states.up(l.id()) && !via.containsKey(l.dst())) {
                    via.put(l.dst(), l);
                    queue.add(l.dst());
                }
            }
        }
        return null;
    }

    /** The links along axes in {@code order}; null if one is missing or down. */
    private List<Link> walk(int[] from, int[] to, int[] order, boolean longWay, int base, LinkStates states) {
        int[] at = from.clone();
        List<Link> path = new ArrayList<>();
        for (int a : order) {
            int n = spec.dims()[a];
            int forward = Math.floorMod(to[a] - at[a], n);
            int step;
            int hops;
            if (!spec.wraps(a)) {
                step = to[a] >= at[a] ? 1 : -1;
                hops = Math.abs(to[a] - at[a]);
            } else {
                boolean positive = forward <= n - forward;
                if (longWay && forward != 0) {
                    positive = !positive;
                }
                step = positive ? 1 : -1;
                hops = positive ? forward : n - forward;
            }
            for (int h = 0; h < hops; h++) {
                int[] next = at.clone();
                next[a] = Math.floorMod(at[a] + step, n);
                Link l = liveLink(devices.get(spec.deviceAt(base + spec.index(at))),
                        devices.get(spec.deviceAt(base + spec.index(next))), states);
                if (l == null) {
                    return null;
                }
                path.add(l);
                at = next;
            }
        }
        return path;
    }

    private Route viaDcn(int src, int dst, LinkStates states) {
        Vertex s = devices.get(src);
        Vertex d = devices.get(dst);
        Link up = out(s, VertexKind.NIC, states);
        Link down = in(d, VertexKind.NIC, states);
        if (up == null || down == null) {
            throw unreachable(src, dst, states);
        }
        Link toSwitch = out(up.dst(), VertexKind.SWITCH, states);
        Link fromSwitch = in(down.src(), VertexKind.SWITCH, states);
        if (toSwitch == null || fromSwitch == null) {
            throw unreachable(src, dst, states);
        }
        return new Route(List.of(up, toSwitch, fromSwitch, down));
    }

    private Link out(Vertex v, VertexKind kind, LinkStates states) {
        for (Link l : graph.outgoingEdgesOf(v)) {
            if (l.dst().kind() == kind && states.up(l.id())) {
                return l;
            }
        }
        return null;
    }

    private Link in(Vertex v, VertexKind kind, LinkStates states) {
        for (Link l : graph.incomingEdgesOf(v)) {
            if (l.src().kind() == kind && states.up(l.id())) {
                return l;
            }
        }
        return null;
    }

    private Link liveLink(Vertex a, Vertex b, LinkStates states) {
        for (Link l : graph.getAllEdges(a, b)) {
            if (states.up(l.id())) {
                return l;
            }
        }
        return null;
    }

    /**
     * Axis orders, dimension order first, then the other permutations in lexicographic order
     * (four axes on a two-chiplet TPU7x slice, the core axis first).
     */
    private static List<int[]> orders(int n) {
        List<int[]> out = new ArrayList<>();
        permute(new int[n], new boolean[n], 0, out);
        return out;
    }

    private static void permute(int[] prefix, boolean[] used, int at, List<int[]> out) {
        if (at == prefix.length) {
            out.add(prefix.clone());
            return;
        }
        for (int a = 0; a < prefix.length; a++) {
            if (!used[a]) {
                used[a] = true;
                prefix[at] = a;
                permute(prefix, used, at + 1, out);
                used[a] = false;
            }
        }
    }

    private NoRouteException unreachable(int src, int dst, LinkStates states) {
        List<Link> down = new ArrayList<>();
        for (Link l : graph.edgeSet()) {
            if (!states.up(l.id())) {
                down.add(l);
            }
        }
        down.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return new NoRouteException(devices.get(src), devices.get(dst), down);
    }
}
