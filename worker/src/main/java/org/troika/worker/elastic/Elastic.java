package org.troika.worker.elastic;

import org.troika.common.ElasticExitCodes;

/**
 * Runs an elastic training body for one generation.
 *
 * <p>MPI cannot grow or shrink a running world, so each generation is a fresh launch of every rank and this
 * method covers one of them:
 * <ol>
 *   <li>rank 0 loads the commit kept on its node (none in the first generation: its initial values count);</li>
 *   <li>in a generation after the first, the reset callbacks run (e.g. rescale the learning rate to the new
 *       {@link ElasticContext#size()});</li>
 *   <li>{@link State#sync()} gives every rank, new hosts included, rank 0's committed state;</li>
 *   <li>the body runs.</li>
 * </ol>
 * The returned code tells the driver what happened; {@code main} passes it to {@code System.exit}:
 * <ul>
 *   <li>{@link ElasticExitCodes#SUCCESS}: the body returned; the job is done.</li>
 *   <li>{@link ElasticExitCodes#HOSTS_UPDATED}: the hosts changed; the live state was committed (and kept on the
 *       node), nothing is lost, the driver starts the next generation.</li>
 *   <li>{@link ElasticExitCodes#COLLECTIVE_FAILURE}: a peer failed; the next generation restores the last
 *       commit.</li>
 * </ul>
 * Any other exception from the body propagates: this rank failed, and the driver blacklists its host.
 */
public final class Elastic {
    private Elastic() {}

    /** The training body. */
    @FunctionalInterface
    public interface Body<S extends State> {
        void train(S state) throws Exception;
    }

    /**
     * Runs {@code body} over {@code state} for this generation.
     *
     * @return the exit code for this rank (see the class comment)
     * @throws Exception whatever the body throws, except the two elastic signals
     */
    public static <S extends State> int run(S state, Body<S> body) throws Exception {
        try {
            state.loadFromNode();
            if (state.context().isReset()) {
                state.onReset();
            }
            state.sync();
            body.train(state);
            return ElasticExitCodes.SUCCESS;
        } catch (HostsUpdatedInterrupt e) {
            state.save();
            state.keepOnNode();
            return ElasticExitCodes.HOSTS_UPDATED;
        } catch (CollectiveFailure e) {
            return ElasticExitCodes.COLLECTIVE_FAILURE;
        }
    }
}
