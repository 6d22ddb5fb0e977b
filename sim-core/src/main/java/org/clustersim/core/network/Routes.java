package org.clustersim.core.network;

import org.clustersim.core.engine.Flow;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.NoRouteException;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/** Looks up a flow's route and turns "no route" into an error that names the flow and its task. */
final class Routes {
    private Routes() {
    }

    static Route of(Topology topology, Flow f, LinkStates states, String owner) {
        return of(topology, f, states, owner, null);
    }

    /** With a link load, the router's adaptive choice; without, its static (ECMP) route. */
    static Route of(Topology topology, Flow f, LinkStates states, String owner,
                    org.clustersim.topology.Router.LinkLoad load) {
        try {
            return load == null ? topology.router().route(f.srcDevice(), f.dstDevice(), f.channel(), states)
                    : topology.router().adaptiveRoute(f.srcDevice(), f.dstDevice(), f.channel(), states, load);
        } catch (NoRouteException e) {
            throw new UnreachableException("flow " + topology.device(f.srcDevice()) + " -> "
                    + topology.device(f.dstDevice()) + " of '" + owner + "' cannot be delivered: " + e.getMessage(), e);
        }
    }
}
