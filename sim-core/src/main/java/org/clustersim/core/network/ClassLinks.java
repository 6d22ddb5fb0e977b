package org.clustersim.core.network;

/**
 * Where the running flow classes ({@link FlowClass}) sit: per link, the class for which it is
 * binding (nothing else may cross it while the class runs), the classes crossing it without
 * binding (in slots, each class knowing its slot per link, {@link ActiveFlow#sharedSlot}), and
 * their total rate there, which a rating of the other flows leaves to them.
 */
final class ClassLinks {
    /**
     * A class starts only if each link it shares keeps this fraction of its capacity spare with
     * the class's load added (wider than {@link Rerating#TIGHT}, so a link a class shares is never
     * tight by load when the class starts).
     */
    private static final double SPARE = 1e-6;

    private final ActiveFlow[] binding;
    private final LinkSlots<ActiveFlow> sharedOn;
    private final double[] classRate;
    /** Running classes that share some link (zero: a rating has no shared link to check). */
    private int sharing;

    ClassLinks(int links) {
        binding = new ActiveFlow[links];
        sharedOn = new LinkSlots<>(links, 2, c -> c.sharedSlot);
        classRate = new double[links];
    }

    /** The class for which a link is binding, or null. */
    ActiveFlow bindingOn(int id) {
        return binding[id];
    }

    /** How many classes cross a link without binding. */
    int sharedCount(int id) {
        return sharedOn.count(id);
    }

    /** The class in slot {@code slot} of those crossing a link without binding. */
    ActiveFlow sharedAt(int id, int slot) {
        return sharedOn.at(id, slot);
    }

    /** The total rate of the classes crossing a link without binding, bytes per ns. */
    double rate(int id) {
        return classRate[id];
    }

    /** Whether some running class shares a link (else no rating need look for classes to split). */
    boolean anySharing() {
        return sharing > 0;
    }

    /**
     * Whether a class may start now: its binding links carry nothing, none of its links binds
     * another class, and its other links keep spare capacity with its load added.
     */
    boolean mayStart(FlowClass c, LinkSlots<ActiveFlow> onLink, LinkRates rates) {
        for (int j = 0; j < c.links.length; j++) {
            int id = c.links[j];
            if (binding[id] != null) {
                return false;
            }
            if (c.binding[j]) {
                if (onLink.count(id) != 0 || sharedOn.count(id) != 0) {
                    return false;
                }
            } else if (rates.rate(id) + c.counts[j] * c.rate > rates.capacity(id) * (1 - SPARE)) {
                return false;
            }
        }
        return true;
    }

    /** Puts a starting class ({@link ActiveFlow#members} set) on its links. */
    void add(ActiveFlow c) {
        FlowClass sym = c.members;
        c.sharedSlot = sym.shares ? new int[sym.links.length] : null;
        if (sym.shares) {
            sharing++;
        }
        for (int j = 0; j < sym.links.length; j++) {
            int id = sym.links[j];
            if (sym.binding[j]) {
                // no flow is rated on a binding link while the class runs: only the class is there
                binding[id] = c;
            } else {
                sharedOn.add(id, c, j);
                classRate[id] += sym.counts[j] * sym.rate;
            }
        }
    }

    /** Takes a class off its links (it finished, or is split into its members). */
    void remove(ActiveFlow c) {
        FlowClass sym = c.members;
        if (sym.shares) {
            sharing--;
        }
        for (int j = 0; j < sym.links.length; j++) {
            int id = sym.links[j];
            if (sym.binding[j]) {
                binding[id] = null;
            } else {
                sharedOn.remove(id, c.sharedSlot[j]);
                // the last class off a link leaves exactly nothing, not a rounding residue
                classRate[id] = sharedOn.count(id) == 0 ? 0 : classRate[id] - sym.counts[j] * sym.rate;
            }
        }
    }
}
