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
}
