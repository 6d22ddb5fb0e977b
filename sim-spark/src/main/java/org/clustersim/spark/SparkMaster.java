package org.clustersim.spark;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.clustersim.core.input.InputException;

/**
 * A {@code --master} URL checked before Spark starts: the forms Spark parses, with at least one
 * local thread, and a standalone master ({@code spark://HOST:PORT}) that resolves and accepts a
 * connection within seconds. Spark itself retries an unreachable master for a minute and then
 * dies with a stack trace; here it costs one line and exit code 2.
 *
 * @param url     the master as given
 * @param timeout how long a name lookup or a connection may take, in milliseconds
 */
record SparkMaster(String url, int timeout) {
    /** How long a standalone master has to resolve and answer before it is called unreachable. */
    static final int TIMEOUT_MS = 3000;

    private static final Pattern LOCAL = Pattern.compile("local(?:\\[\\s*([0-9]+|\\*)\\s*(?:,\\s*([0-9]+)\\s*)?\\])?");
    private static final Pattern LOCAL_CLUSTER = Pattern.compile(
            "local-cluster\\[\\s*([0-9]+)\\s*,\\s*([0-9]+)\\s*,\\s*([0-9]+)\\s*]");
    private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[^:/\\[\\]]+):([0-9]{1,5})");
    private static final String FORMS = "expected local, local[N] or local[*] (N at least 1), "
            + "spark://HOST:PORT, yarn or k8s://URL";

    SparkMaster(String url) {
        this(url, TIMEOUT_MS);
    }

    /** Refuses a master Spark would refuse, or a standalone master that cannot be reached. */
    void check() {
        Matcher local = LOCAL.matcher(url);
        if (local.matches()) {
            positive(local.group(1), "threads");
            positive(local.group(2), "task attempts");
            return;
        }
        Matcher cluster = LOCAL_CLUSTER.matcher(url);
        if (cluster.matches()) {
            positive(cluster.group(1), "workers");
            positive(cluster.group(2), "cores per worker");
            positive(cluster.group(3), "megabytes per worker");
            return;
        }
        if (url.startsWith("spark://")) {
            standalone(url.substring("spark://".length()));
            return;
        }
        if (url.equals("yarn") || url.startsWith("k8s://") || url.startsWith("mesos://")) {
            return; // the cluster manager's client checks these; Spark's error is turned into one line
        }
        throw refused(url.startsWith("local") ? "not a local master Spark reads; " + FORMS : FORMS);
    }

    private void positive(String count, String what) {
        if (count == null || count.equals("*")) {
            return;
        }
        if (count.length() > 9 || Integer.parseInt(count) < 1) {
            throw refused(count + " " + what + "; expected a count from 1 to 999999999");
        }
    }

    /** {@code HOST:PORT[,HOST:PORT...]}: at least one of the masters (several for high availability) must answer. */
    private void standalone(String masters) {
        List<String> failures = new ArrayList<>();
        for (String master : masters.split(",", -1)) {
            Matcher m = HOST_PORT.matcher(master.strip());
            if (!m.matches()) {
                throw refused("'" + master + "' is not HOST:PORT; " + FORMS);
            }
            int port = Integer.parseInt(m.group(2));
            if (port < 1 || port > 65535) {
                throw refused("port " + m.group(2) + " of " + master + "; expected 1 to 65535");
            }
            String host = m.group(1).replace("[", "").replace("]", "");
            String why = reach(host, port);
            if (why == null) {
                return;
            }
            failures.add(why);
        }
        throw refused(String.join("; ", failures) + "; start the master there (sbin/start-master.sh), "
                + "or run on this machine with --master local[N]");
    }

    /** Null when {@code host:port} accepts a connection, else why not. */
    private String reach(String host, int port) {
        InetAddress address;
        try {
            // the resolver has no timeout of its own: a slow DNS server would hold the command for minutes
            address = CompletableFuture.supplyAsync(() -> {
                try {
                    return InetAddress.getByName(host);
                } catch (UnknownHostException e) {
                    return null;
                }
            }).get(timeout, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return "the name " + host + " did not resolve within " + seconds();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while resolving " + host;
        } catch (ExecutionException e) {
            address = null;
        }
        if (address == null) {
            return "no such host " + host + " (the name does not resolve)";
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), timeout);
            return null;
        } catch (ConnectException e) {
            return "nothing accepts connections at " + host + ":" + port + " (connection refused)";
        } catch (SocketTimeoutException e) {
            return "no answer from " + host + ":" + port + " within " + seconds();
        } catch (IOException e) {
            return "cannot connect to " + host + ":" + port + " (" + e.getMessage() + ")";
        }
    }

    private String seconds() {
        return (timeout % 1000 == 0 ? String.valueOf(timeout / 1000) : String.valueOf(timeout / 1000.0)) + " s";
    }

    private InputException refused(String why) {
        return new InputException("--master " + url + ": " + why);
    }
}
