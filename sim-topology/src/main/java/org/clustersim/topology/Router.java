package org.clustersim.topology;

/**
 * Chooses the links a flow crosses. Implementations know their fabric's routing discipline
 * (up-down ECMP on switched fabrics, dimension order on tori) and avoid links that are down.
 */
public interface Router {
    /**
     * The route of a flow from one device to another.
     *
     * @param srcDevice source device
     * @param dstDevice destination device
     * @param channel   which of several parallel connections between the pair (ECMP hashes on it)
     * @param states    current link health
     * @throws NoRouteException if every path crosses a link that is down
     */
    Route route(int srcDevice, int dstDevice, int channel, LinkStates states);

    /**
     * The route of a flow under adaptive routing: where several equal-cost next hops exist, the
     * one whose way on to the destination leaf has the busiest link carrying the fewest flows
     * right now is taken (only a strictly lower load displaces the hash's choice), which is how
     * adaptive routing spreads flows that a static hash would collide. Routers without path
     * diversity (dimension-order tori) return the static route.
     *
     * @param load flows currently on each link
     */
    default Route adaptiveRoute(int srcDevice, int dstDevice, int channel, LinkStates states, LinkLoad load) {
        return route(srcDevice, dstDevice, channel, states);
    }

    /**
     * Whether {@link #adaptiveRoute} returns the static {@link #route} for this flow whatever the
     * load (no hop on its path has a choice), so that a caller may keep the route it got.
     */
    default boolean adaptiveIsStatic(int srcDevice, int dstDevice, int channel, LinkStates states) {
        return true;
    }

    /**
     * The links whose loads {@link #adaptiveRoute} may read for this flow, by id (it reads no
     * other), or null where the router cannot bound them. With those links' loads as they were
     * at an earlier call, the adaptive route is the one chosen then: a caller may keep routes
     * by those loads. Routers whose adaptive route is the static one read none.
     */
    default int[] adaptiveReads(int srcDevice, int dstDevice, int channel, LinkStates states) {
        return new int[0];
    }

    /**
     * Whether the route of a flow leaves its scale-up domain through a NIC (so the network's
     * protocol efficiency and step latency apply). Collective planning asks this for every flow
     * of every ring; routers that can tell without building the route should say so cheaply.
     *
     * @throws NoRouteException if every path crosses a link that is down
     */
    default boolean leavesScaleUp(int srcDevice, int dstDevice, int channel, LinkStates states) {
        if (srcDevice == dstDevice) {
            return false;
        }
        for (Link l : route(srcDevice, dstDevice, channel, states).links()) {
            if (l.kind() == LinkKind.GPU_NIC) {
                return true;
            }
        }
        return false;
    }

    /**
     * How many flows each link carries at the moment: the caller's per-link counts, indexed by
     * link id, which it keeps current and the router only reads (an array, not a callback: the
     * adaptive choice reads it dozens of times per route).
     */
    record LinkLoad(int[] perLink) {
        public int flows(int linkId) {
            return perLink[linkId];
        }
    }
}
