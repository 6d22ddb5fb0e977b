package org.clustersim.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Routing on GPU clusters: inside a scale-up domain, GPU to NVSwitch to GPU; otherwise GPU to
 * its NIC, up to the NIC's leaf switch, across the switch fabric on a shortest path, and down
 * through the destination's leaf and NIC. GPUs and NICs never forward traffic for others.
 *
 * <p>Across the fabric every hop picks among the equal-cost next hops (ECMP) by a seeded hash
 * of the flow (source, destination, channel) and the current switch, so a run is
 * reproducible and different flows spread over the spines. The hash is taken modulo the live
 * next hops, as switches without resilient hashing do: a down link re-hashes flows that never
 * crossed it, which can break up a collision and make a step faster. Under adaptive routing each hop
 * instead takes the next hop whose best continuation has the least-loaded busiest link, given
 * the flows on every link at that moment. Down links are avoided; distances
 * to each destination leaf are computed by a breadth-first search over the live switch links
 * and cached until a link changes state, as are the routes themselves.
 *
 * <p>Why this class is long: it is on the flow model's hot path; the per-leaf distance tables,
 * their densely numbered switch arrays and the adaptive scan that reads them in place share
 * private arrays, which a split would have to expose or copy.
 */
public final class SwitchedRouter implements Router {
    private final List<Link> links;
    /** Every vertex's outgoing and incoming links as arrays: JGraphT copies edge sets on every lookup. */
    private final Link[][] outOf;
    private final Link[][] inTo;
    private final List<Vertex> devices;
    private final int[] scaleUp;
    private final int[] nic;
    private final List<Vertex> vertices;
    private final long seed;
    /** Per destination leaf (by vertex id), the distances toward it; null until asked. */
    private final ToLeaf[] distanceToLeaf;
    /** Healthy fabric: per set of switch neighbours, the first leaf searched with them. */
    private final java.util.Map<java.nio.IntBuffer, ToLeaf> twinOf = new java.util.HashMap<>();
    private final RouteCache routes = new RouteCache();
    private long cachedVersion = -1;
    private LinkStates cachedStates;
    /** Per switch vertex, the switch-to-switch links leaving it (for ECMP). */
    private final Link[][] switchOut;
    /**
     * Switches numbered densely (a 16K-GPU fabric has 40 K vertices but about a thousand switches):
     * per vertex id its switch number or -1, so that the per-leaf distance arrays hold switches only.
     */
    private final int[] switchNumber;
    private final int switches;
    /** Per switch number, the switch-to-switch links arriving at it (for the distance search): source switch numbers and link ids. */
    private final int[][] switchInSrc;
    private final int[][] switchInLink;
    private final int[] bfsQueue;
    private static final int UNKNOWN = -2;
    /** Per device, the leaf switch its NIC sends to and receives from (healthy fabric), -1 for none, {@link #UNKNOWN} until asked. */
    private final int[] leafUp;
    private final int[] leafDown;
    private final int[] memoStamp;
    private final int[] memoValue;
    /** Scratch of the adaptive choice two hops from a leaf: each next hop's busiest-link load. */
    private int[] worst = new int[64];
    private int stamp;
    /** Scratch of {@link #shortestPathLinks}: per switch number the stamp of the search that reached it, and the links found. */
    private final int[] pathReached;
    private int pathStamp;
    private int[] pathLinks = new int[256];
    /**
     * Per device, with every link healthy: its way out to its leaf (GPU-to-NIC and NIC-to-leaf
     * links) and its way in (leaf-to-NIC, NIC-to-GPU), when no hash picks among parallel links
     * ({@link #BY_HASH} when one does); filled on first use. Every route across the network
     * starts and ends so, and a direct all-to-all routes tens of millions.
     */
    private final Link[][] wayOut;
    private final Link[][] wayIn;
    private static final Link[] BY_HASH = new Link[0];
    /** Marks a switch without a two-hop table (see {@code ToLeaf.lastHop}). */
    private static final int[] NO_TABLE = new int[0];

    /**
     * @param scaleUp per device, the vertex id of its scale-up switch, or -1
     * @param nic     per device, the vertex id of its NIC, or -1
     * @param seed    ECMP hash seed
     */
    SwitchedRouter(List<Vertex> vertices, List<Link> links, List<Vertex> devices, int[] scaleUp, int[] nic,
                   long seed) {
        this.links = links;
        this.vertices = vertices;
        this.devices = devices;
        this.scaleUp = scaleUp;
        this.nic = nic;
        this.seed = seed;
        Link[] all = links.toArray(new Link[0]);
        outOf = new Link[vertices.size()][];
        inTo = new Link[vertices.size()][];
        adjacency(all, outOf, inTo);
        memoStamp = new int[vertices.size()];
        memoValue = new int[vertices.size()];
        wayOut = new Link[devices.size()][];
        wayIn = new Link[devices.size()][];
        Link[][] switchIn = new Link[vertices.size()][];
        switchOut = new Link[vertices.size()][];
        for (Vertex v : vertices) {
            if (v.kind() == VertexKind.SWITCH) {
                switchIn[v.id()] = betweenSwitches(inTo[v.id()]);
                switchOut[v.id()] = betweenSwitches(outOf[v.id()]);
            }
        }
        switchNumber = new int[vertices.size()];
        Arrays.fill(switchNumber, -1);
        int count = 0;
        for (Vertex v : vertices) {
            if (v.kind() == VertexKind.SWITCH) {
                switchNumber[v.id()] = count++;
            }
        }
        switches = count;
        switchInSrc = new int[switches][];
        switchInLink = new int[switches][];
        for (int v = 0; v < vertices.size(); v++) {
            int sw = switchNumber[v];
            if (sw < 0) {
                continue;
            }
            Link[] in = switchIn[v];
            switchInSrc[sw] = new int[in.length];
            switchInLink[sw] = new int[in.length];
            for (int i = 0; i < in.length; i++) {
                switchInSrc[sw][i] = switchNumber[in[i].src().id()];
                switchInLink[sw][i] = in[i].id();
            }
        }
        bfsQueue = new int[switches];
        pathReached = new int[switches];
        distanceToLeaf = new ToLeaf[vertices.size()];
        leafUp = new int[devices.size()];
        leafDown = new int[devices.size()];
        Arrays.fill(leafUp, UNKNOWN);
        Arrays.fill(leafDown, UNKNOWN);
    }

    /** Fills each vertex's links out and in, in id order (the order they were added). */
    private static void adjacency(Link[] links, Link[][] outOf, Link[][] inTo) {
        int[] out = new int[outOf.length];
        int[] in = new int[inTo.length];
        for (Link l : links) {
            out[l.src().id()]++;
            in[l.dst().id()]++;
        }
        for (int v = 0; v < outOf.length; v++) {
            outOf[v] = new Link[out[v]];
            inTo[v] = new Link[in[v]];
            out[v] = 0;
            in[v] = 0;
        }
        for (Link l : links) {
            int s = l.src().id();
            int d = l.dst().id();
            outOf[s][out[s]++] = l;
            inTo[d][in[d]++] = l;
        }
    }

    /** The links among {@code links} with a switch at both ends. */
    private static Link[] betweenSwitches(Link[] links) {
        int n = 0;
        for (Link l : links) {
            n += l.src().kind() == VertexKind.SWITCH && l.dst().kind() == VertexKind.SWITCH ? 1 : 0;
        }
        Link[] out = new Link[n];
        int k = 0;
        for (Link l : links) {
            if (l.src().kind() == VertexKind.SWITCH && l.dst().kind() == VertexKind.SWITCH) {
                out[k++] = l;
            }
        }
        return out;
    }

    @Override
    public Route route(int src, int dst, int channel, LinkStates states) {
        validate(states);
        // destination in the low bits, source above, channel on top: Long's hash folds the halves,
        // so keys spread over the table (channel-first keys piled into a few treeified buckets)
        long key = ((long) (channel & 63) << 48) | ((long) src << 24) | dst;
        Route r = routes.get(key);
        if (r == null) {
            r = compute(src, dst, channel, states);
            routes.put(key, r);
        }
        return r;
    }

    /**
     * Without building the route: a pair on one scale-up switch with live links to it stays
     * inside; any other pair goes through its NICs. Under faults the route itself decides (and
     * reports an unreachable destination).
     */
    @Override
    public boolean leavesScaleUp(int src, int dst, int channel, LinkStates states) {
        if (states.version() != 0) {
            return Router.super.leavesScaleUp(src, dst, channel, states);
        }
        if (src == dst) {
            return false;
        }
        if (scaleUp[src] >= 0 && scaleUp[src] == scaleUp[dst]) {
            Vertex sw = vertices.get(scaleUp[src]);
            if (pick(devices.get(src), sw, src, dst, channel, states) != null
                    && pick(sw, devices.get(dst), src, dst, channel, states) != null) {
                return false;
            }
        }
        if (nic[src] < 0 || nic[dst] < 0) {
            throw unreachable(devices.get(src), devices.get(dst), states);
        }
        return true;
    }

    /**
     * Adaptive routes depend on the load at the moment, so they are computed afresh, never cached,
     * except between two devices of one healthy scale-up domain or below one leaf switch, where
     * nothing depends on load.
     */
    @Override
    public Route adaptiveRoute(int src, int dst, int channel, LinkStates states, LinkLoad load) {
        validate(states);
        if (adaptiveIsStatic(src, dst, channel, states)) {
            return route(src, dst, channel, states);
        }
        return compute(src, dst, channel, states, load);
    }

    /**
     * Every switch-to-switch link on a shortest path from the flow's source leaf to its
     * destination leaf: each hop's choice reads its next hops' links and, to weigh them, the
     * links below them, all on such paths. None inside a scale-up domain or below one leaf;
     * unbounded (null) under faults. Computed afresh at every call.
     */
    @Override
    public int[] adaptiveReads(int src, int dst, int channel, LinkStates states) {
        validate(states);
        if (adaptiveIsStatic(src, dst, channel, states)) {
            return new int[0];
        }
        if (states.version() != 0 || src == dst || nic[src] < 0 || nic[dst] < 0) {
            return null;
        }
        int from = leaf(src, true);
        int to = leaf(dst, false);
        if (from < 0 || to < 0) {
            return null;
        }
        // not kept: a caller asks once per flow of a phase it keeps choices for, and on a
        // three-tier fabric the pairs of leaves are many and their paths long
        int[] links = shortestPathLinks(from, to, states);
        return links == NO_TABLE ? null : links;
    }

    /** The links of every shortest path between two leaves, sorted by id ({@code NO_TABLE} if none). */
    private int[] shortestPathLinks(int from, int to, LinkStates states) {
        ToLeaf toLeaf = toLeaf(vertices.get(to), states);
        if (switchNumber[from] < 0 || toLeaf.dist[switchNumber[from]] < 0) {
            return NO_TABLE;
        }
        // the search's queue and marks are kept between calls (marked with a fresh stamp each)
        int[] reached = pathReached;
        int[] queue = bfsQueue;
        int mark = ++pathStamp;
        if (mark == 0) {
            // the stamps wrapped around: forget every earlier mark
            Arrays.fill(reached, 0);
            mark = ++pathStamp;
        }
        int head = 0;
        int tail = 0;
        queue[tail++] = from;
        reached[switchNumber[from]] = mark;
        int[] links = pathLinks;
        int count = 0;
        while (head < tail) {
            int v = queue[head++];
            if (v == to) {
                continue;
            }
            int sw = toLeaf.withIds(v, states);
            int[] ids = toLeaf.nextId[sw];
            int[] dsts = toLeaf.nextDst[sw];
            for (int k = 0; k < ids.length; k++) {
                if (count == links.length) {
                    links = Arrays.copyOf(links, count * 2);
                }
                links[count++] = ids[k];
                if (reached[switchNumber[dsts[k]]] != mark) {
                    reached[switchNumber[dsts[k]]] = mark;
                    queue[tail++] = dsts[k];
                }
            }
        }
        pathLinks = links;
        int[] sorted = Arrays.copyOf(links, count);
        Arrays.sort(sorted);
        return sorted;
    }

    /**
     * The distances toward a destination leaf, found on first use. On a healthy fabric a leaf
     * whose switch neighbours, in and out, are another searched leaf's (its twin: the leaves of
     * one rail group reach the same spines) takes the twin's distances: any walk into the twin
     * ends on a link from one of its neighbours, which reaches this leaf as well, so every other
     * switch is as far from both, and each twin is as far from the other as the other from it.
     * The 512 leaves of a 64-SU SuperPOD fall into 16 such groups: 16 searches instead of 512.
     */
    private ToLeaf toLeaf(Vertex leafD, LinkStates states) {
        ToLeaf toLeaf = distanceToLeaf[leafD.id()];
        if (toLeaf == null) {
            if (states.version() != 0) {
                toLeaf = new ToLeaf(bfsTo(leafD, states), leafD.id());
            } else {
                java.nio.IntBuffer key = neighbours(leafD.id(), switchNumber[leafD.id()]);
                ToLeaf twin = twinOf.get(key);
                toLeaf = new ToLeaf(twin == null ? bfsTo(leafD, states) : twinDistances(twin, leafD), leafD.id());
                twinOf.putIfAbsent(key, toLeaf);
            }
            distanceToLeaf[leafD.id()] = toLeaf;
        }
        return toLeaf;
    }

    /** Per switch number, hop distances to {@code leaf} from its twin's (see {@link #toLeaf}). */
    private int[] twinDistances(ToLeaf twin, Vertex leaf) {
        int sw = switchNumber[leaf.id()];
        int[] dist = twin.dist.clone();
        dist[sw] = 0;
        dist[switchNumber[twin.leaf]] = twin.dist[sw];
        return dist;
    }

    /**
     * A switch's neighbours over switch links, in and out, as a map key (an int buffer's equality
     * and hash are its contents').
     */
    private java.nio.IntBuffer neighbours(int vertexId, int sw) {
        int[] in = switchInSrc[sw].clone();
        Arrays.sort(in);
        Link[] outLinks = switchOut[vertexId];
        int[] out = new int[outLinks.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = switchNumber[outLinks[i].dst().id()];
        }
        Arrays.sort(out);
        // the switch itself among its neighbours would break the twin argument: no twin then
        int[] ids = new int[in.length + out.length + 2];
        ids[0] = in.length;
        System.arraycopy(in, 0, ids, 1, in.length);
        ids[in.length + 1] = Arrays.binarySearch(in, sw) >= 0 || Arrays.binarySearch(out, sw) >= 0 ? -1 - sw : -1;
        System.arraycopy(out, 0, ids, in.length + 2, out.length);
        return java.nio.IntBuffer.wrap(ids);
    }

    /** Hops distance between a switch and a leaf, as the router sees it (for tests). */
    int hops(Vertex from, Vertex leaf, LinkStates states) {
        validate(states);
        return toLeaf(leaf, states).dist[switchNumber[from.id()]];
    }

    /** Inside one healthy scale-up domain or below one leaf switch no hop is chosen by load. */
    @Override
    public boolean adaptiveIsStatic(int src, int dst, int channel, LinkStates states) {
        return states.version() == 0 && src != dst
                && (scaleUp[src] >= 0 && scaleUp[src] == scaleUp[dst]
                    || leaf(src, true) >= 0 && leaf(src, true) == leaf(dst, false));
    }

    /**
     * The vertex id of the leaf switch a device's NIC sends to ({@code sending}) or receives from,
     * with every link healthy (the links {@link #compute} takes first), or -1; kept per device.
     */
    private int leaf(int device, boolean sending) {
        int[] memo = sending ? leafUp : leafDown;
        if (memo[device] == UNKNOWN) {
            Link l = nic[device] < 0 ? null : firstUp(sending ? outOf[nic[device]] : inTo[nic[device]], null);
            memo[device] = l == null ? -1 : (sending ? l.dst() : l.src()).id();
        }
        return memo[device];
    }

    /** Drops cached routes and distances made under other link states; every never-changed state is "healthy". */
    private void validate(LinkStates states) {
        boolean same = states.version() == 0 ? cachedVersion == 0
                : states == cachedStates && states.version() == cachedVersion;
        if (!same) {
            routes.clear();
            java.util.Arrays.fill(distanceToLeaf, null);
            twinOf.clear();
            cachedStates = states;
            cachedVersion = states.version();
        }
    }

    private Route compute(int src, int dst, int channel, LinkStates states) {
        return compute(src, dst, channel, states, null);
    }

    private Route compute(int src, int dst, int channel, LinkStates states, LinkLoad load) {
        if (src == dst) {
            return new Route(List.of());
        }
        Vertex s = devices.get(src);
        Vertex d = devices.get(dst);
        if (scaleUp[src] >= 0 && scaleUp[src] == scaleUp[dst]) {
            Vertex sw = vertices.get(scaleUp[src]);
            Link up = pick(s, sw, src, dst, channel, states);
            Link down = pick(sw, d, src, dst, channel, states);
            if (up != null && down != null) {
                return Route.of(new Link[] {up, down});
            }
        }
        if (nic[src] < 0 || nic[dst] < 0) {
            throw unreachable(s, d, states);
        }
        Vertex ns = vertices.get(nic[src]);
        Vertex nd = vertices.get(nic[dst]);
        Link[] out = states.version() == 0 ? way(src, true) : BY_HASH;
        Link[] in = states.version() == 0 ? way(dst, false) : BY_HASH;
        Link gpuToNic = out != BY_HASH ? out[0] : pick(s, ns, src, dst, channel, states);
        Link nicToGpu = in != BY_HASH ? in[1] : pick(nd, d, src, dst, channel, states);
        Link nicUp = out != BY_HASH ? out[1] : firstUp(outOf[ns.id()], states);
        Link nicDown = in != BY_HASH ? in[0] : firstUp(inTo[nd.id()], states);
        if (gpuToNic == null || nicToGpu == null || nicUp == null || nicDown == null) {
            throw unreachable(s, d, states);
        }
        Vertex leafS = nicUp.dst();
        Vertex leafD = nicDown.src();
        Link[] path;
        int h = 0;
        if (leafS == leafD) {
            path = new Link[4];
            path[h++] = gpuToNic;
            path[h++] = nicUp;
        } else {
            ToLeaf toLeaf = toLeaf(leafD, states);
            Vertex u = leafS;
            int across = toLeaf.dist[switchNumber[u.id()]];
            if (across < 0) {
                throw unreachable(s, d, states);
            }
            path = new Link[4 + across];
            path[h++] = gpuToNic;
            path[h++] = nicUp;
            stamp++;
            while (u != leafD) {
                Link next = ecmp(u, toLeaf, src, dst, channel, states, load == null ? null : load.perLink());
                path[h++] = next;
                u = next.dst();
            }
        }
        path[h++] = nicDown;
        path[h] = nicToGpu;
        return Route.of(path);
    }

    /**
     * A device's healthy way out of ({@code sending}) or into its NIC: the one GPU-NIC link and
     * the NIC's first switch link, in route order, or {@link #BY_HASH} when several parallel links
     * leave the choice to the hash (or a link is missing, which the general path reports).
     */
    private Link[] way(int device, boolean sending) {
        Link[][] memo = sending ? wayOut : wayIn;
        Link[] w = memo[device];
        if (w == null) {
            Vertex gpu = devices.get(device);
            Vertex n = vertices.get(nic[device]);
            Link only = null;
            int parallel = 0;
            for (Link l : sending ? outOf[gpu.id()] : inTo[gpu.id()]) {
                if (sending ? l.dst() == n : l.src() == n) {
                    only = l;
                    parallel++;
                }
            }
            Link edge = firstUp(sending ? outOf[n.id()] : inTo[n.id()], null);
            w = parallel != 1 || edge == null ? BY_HASH : sending ? new Link[] {only, edge} : new Link[] {edge, only};
            memo[device] = w;
        }
        return w;
    }

    /** Per switch number, hop distances to {@code leaf} over live switch-to-switch links (-1: unreachable). */
    private int[] bfsTo(Vertex leaf, LinkStates states) {
        int[] dist = new int[switches];
        Arrays.fill(dist, -1);
        int target = switchNumber[leaf.id()];
        dist[target] = 0;
        int[] queue = bfsQueue;
        int head = 0;
        int tail = 0;
        queue[tail++] = target;
        while (head < tail) {
            int v = queue[head++];
            int[] from = switchInSrc[v];
            int[] via = switchInLink[v];
            int next = dist[v] + 1;
            for (int i = 0; i < from.length; i++) {
                int u = from[i];
                if (dist[u] < 0 && states.up(via[i])) {
                    dist[u] = next;
                    queue[tail++] = u;
                }
            }
        }
        return dist;
    }

    /**
     * Distances to one destination leaf per switch number, and per switch (filled on first use)
     * its live next hops toward the leaf in link order: a spine need not scan all its links for
     * the one leaf.
     */
    private final class ToLeaf {
        final int[] dist;
        /** The destination leaf's vertex id. */
        final int leaf;
        /** Per switch number: the next hops, their link ids and the vertex ids they lead to. */
        final Link[][] next;
        final int[][] nextId;
        final int[][] nextDst;
        /**
         * Per switch two hops from the leaf (a leaf across a leaf-spine fabric) whose every next
         * hop's far end has exactly one link into the leaf: those links' ids by next hop, which the
         * adaptive choice reads in place ({@code NO_TABLE} where the general search applies).
         */
        final int[][] lastHop;

        ToLeaf(int[] dist, int leaf) {
            this.dist = dist;
            this.leaf = leaf;
            this.next = new Link[dist.length][];
            this.nextId = new int[dist.length][];
            this.nextDst = new int[dist.length][];
            this.lastHop = new int[dist.length][];
        }

        /** The switch number of vertex {@code vertexId}, its next hops filled in. */
        int at(int vertexId, LinkStates states) {
            int sw = switchNumber[vertexId];
            if (next[sw] == null) {
                Link[] outs = switchOut[vertexId];
                int closer = dist[sw] - 1;
                int n = 0;
                for (Link out : outs) {
                    if (dist[switchNumber[out.dst().id()]] == closer && states.up(out.id())) {
                        n++;
                    }
                }
                Link[] candidates = new Link[n];
                n = 0;
                for (Link out : outs) {
                    if (dist[switchNumber[out.dst().id()]] == closer && states.up(out.id())) {
                        candidates[n++] = out;
                    }
                }
                next[sw] = candidates;
            }
            return sw;
        }

        /**
         * As {@link #at}, with the next hops' link ids and far ends filled in too: only adaptive
         * choices read them (static routes to every leaf would allocate them for nothing).
         */
        int withIds(int vertexId, LinkStates states) {
            int sw = at(vertexId, states);
            if (nextId[sw] == null) {
                Link[] n = next[sw];
                int[] ids = new int[n.length];
                int[] dsts = new int[n.length];
                for (int i = 0; i < n.length; i++) {
                    ids[i] = n[i].id();
                    dsts[i] = n[i].dst().id();
                }
                nextDst[sw] = dsts;
                nextId[sw] = ids;
            }
            return sw;
        }

        /**
         * For switch number {@code sw} (its ids filled in): the {@link #lastHop} table, made on first
         * use, or {@code NO_TABLE}. Only adaptive choices ask (a static route needs no loads).
         */
        int[] lastHop(int sw, LinkStates states) {
            if (lastHop[sw] == null) {
                int[] dsts = nextDst[sw];
                int[] one = dist[sw] == 2 ? new int[dsts.length] : NO_TABLE;
                for (int k = 0; k < dsts.length && one != NO_TABLE; k++) {
                    int[] far = nextId[withIds(dsts[k], states)];
                    if (far.length == 1) {
                        one[k] = far[0];
                    } else {
                        one = NO_TABLE;
                    }
                }
                lastHop[sw] = one;
            }
            return lastHop[sw];
        }
    }

    /**
     * The next hop from u: by hash (ECMP), or (adaptive) the one whose best remaining path to the
     * destination leaf has the least-loaded busiest link, scanning from the hash's choice so ties
     * fall as ECMP would.
     */
    private Link ecmp(Vertex u, ToLeaf toLeaf, int src, int dst, int channel, LinkStates states, int[] load) {
        int sw = toLeaf.at(u.id(), states);
        Link[] candidates = toLeaf.next[sw];
        if (candidates.length == 1) {
            // one way on (a spine's link into the leaf): neither hash nor load can choose another
            return candidates[0];
        }
        int start = (int) Long.remainderUnsigned(hash(src, dst, channel, u.id()), candidates.length);
        if (load == null) {
            return candidates[start];
        }
        toLeaf.withIds(u.id(), states);
        int[] ids = toLeaf.nextId[sw];
        int[] dsts = toLeaf.nextDst[sw];
        int best = -1;
        int bestLoad = Integer.MAX_VALUE;
        int n = candidates.length;
        int[] lastHop = toLeaf.lastHop(sw, states);
        if (lastHop != NO_TABLE) {
            // one link into the leaf behind each next hop (a leaf-spine fabric): every load is
            // read without a branch between the reads, then the first least value in the scan
            // order from the hash's choice wins, as in the pruned scan below
            int[] f = worst.length >= n ? worst : (worst = new int[n]);
            for (int k = 0; k < n; k++) {
                f[k] = Math.max(load[ids[k]], load[lastHop[k]]);
            }
            best = start;
            bestLoad = f[start];
            for (int i = 1, k = start + 1 == n ? 0 : start + 1; i < n && bestLoad > 0; i++, k = k + 1 == n ? 0 : k + 1) {
                if (f[k] < bestLoad) {
                    best = k;
                    bestLoad = f[k];
                }
            }
            return candidates[best];
        }
        // only a strictly lower load displaces the choice so far: a link already as loaded cannot,
        // whatever lies behind it, and nothing beats an idle path
        for (int i = 0, k = start; i < n && bestLoad > 0; i++, k = k + 1 == n ? 0 : k + 1) {
            int here = load[ids[k]];
            if (here >= bestLoad) {
                continue;
            }
            int f = Math.max(here, bottleneck(dsts[k], toLeaf, states, load));
            if (f < bestLoad) {
                best = k;
                bestLoad = f;
            }
        }
        return best < 0 ? null : candidates[best];
    }

    /**
     * Least achievable busiest-link load from v down to the destination leaf (0 at the leaf),
     * memoised per route computation (stamp) in arrays indexed by vertex.
     */
    private int bottleneck(int id, ToLeaf toLeaf, LinkStates states, int[] load) {
        if (id == toLeaf.leaf) {
            return 0;
        }
        if (memoStamp[id] == stamp) {
            return memoValue[id];
        }
        int sw = toLeaf.withIds(id, states);
        int[] ids = toLeaf.nextId[sw];
        int[] dsts = toLeaf.nextDst[sw];
        int best = Integer.MAX_VALUE;
        for (int k = 0; k < ids.length; k++) {
            int here = load[ids[k]];
            if (here < best) {
                best = Math.min(best, Math.max(here, bottleneck(dsts[k], toLeaf, states, load)));
                if (best == 0) {
                    break;
                }
            }
        }
        memoStamp[id] = stamp;
        memoValue[id] = best;
        return best;
    }

    /** One of the live parallel links from a to b, chosen by hash; null if none is up. */
    private Link pick(Vertex a, Vertex b, int src, int dst, int channel, LinkStates states) {
        Link[] out = outOf[a.id()];
        Link[] in = inTo[b.id()];
        boolean byOut = out.length <= in.length;
        Link[] scan = byOut ? out : in;
        int live = 0;
        for (Link l : scan) {
            if ((byOut ? l.dst() == b : l.src() == a) && states.up(l.id())) {
                live++;
            }
        }
        if (live == 0) {
            return null;
        }
        int chosen = live == 1 ? 0 : (int) Long.remainderUnsigned(hash(src, dst, channel, a.id()), live);
        for (Link l : scan) {
            if ((byOut ? l.dst() == b : l.src() == a) && states.up(l.id()) && chosen-- == 0) {
                return l;
            }
        }
        throw new IllegalStateException("unreachable");
    }

    /** The first live switch-side link among {@code links}; with no states, every link counts as live. */
    private static Link firstUp(Link[] links, LinkStates states) {
        for (Link l : links) {
            if (l.dst().kind() != VertexKind.ACCELERATOR && l.src().kind() != VertexKind.ACCELERATOR
                    && (states == null || states.up(l.id()))) {
                return l;
            }
        }
        return null;
    }

    private long hash(int src, int dst, int channel, int at) {
        long h = seed;
        h = mix(h ^ src);
        h = mix(h ^ ((long) dst << 20));
        h = mix(h ^ ((long) channel << 40));
        return mix(h ^ at);
    }

    /** SplitMix64 finaliser. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private NoRouteException unreachable(Vertex s, Vertex d, LinkStates states) {
        List<Link> down = new ArrayList<>();
        for (Link l : links) {
            if (!states.up(l.id())) {
                down.add(l);
            }
        }
        down.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return new NoRouteException(s, d, down);
    }
}
