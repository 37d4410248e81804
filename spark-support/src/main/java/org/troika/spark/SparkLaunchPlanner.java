package org.troika.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.troika.common.ShellQuote;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.mpi.MpirunCommandBuilder;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchAgent;
import org.troika.launcher.spi.LaunchContext;

/**
 * Plans the mpirun of a Spark job (pure): a {@link RunSettings} from the {@link RunOptions} and the host layout, and
 * the launcher's own {@link MpirunCommandBuilder} with the relay's launch agent as a planning input.
 */
final class SparkLaunchPlanner {
    static final String RANK_MAIN = "org.troika.spark.RankMain";

    private SparkLaunchPlanner() {}

    /** {@code java [options] -cp CP org.troika.spark.RankMain}. */
    static List<String> rankCommand(String java, List<String> jvmOptions, String classpath) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classpath, RANK_MAIN));
        return cmd;
    }

    static RunSettings settings(RunOptions o, HostLayout layout, int np, List<String> rankCommand) {
        return RunSettings.builder().np(np).hosts(layout.hosts(), "Spark task host hashes")
                .networkInterfaces(o.networkInterfaces()).mpiArgs(o.mpiArgs()).verbose(o.verbose())
                .prefixTimestamp(o.prefixTimestamp()).startTimeout(o.startTimeout())
                .launchAgent(RunSettings.LaunchAgent.RELAY).command(rankCommand).build();
    }

    /**
     * The mpirun plan: the launcher's plan for {@code s} with {@code --mca plm_rsh_agent AGENT} (PRRTE:
     * {@code --prtemca plm_ssh_agent}) after the mpirun word and the agent's variables in mpirun's environment.
     *
     * @param env mpirun's environment (exported to the ranks by name), without the secret
     * @param agentEnv driver address, secret file, liveness: for the agent only, never exported
     */
    static BackendPlan plan(RunSettings s, MpiInstall mpi, boolean asRoot, Map<String, String> env, Path agent,
            Map<String, String> agentEnv) {
        if (!mpi.flavor().isOpenMpiFamily()) {
            throw new UsageException("troika-spark starts MPI daemons through Open MPI's launch agent; "
                    + mpi.flavor().displayName() + " has none: put Open MPI's mpirun first on PATH or in "
                    + TroikaEnv.MPIRUN);
        }
        HostPlan hosts = HostPlan.assign(s.hostSource(), s.hosts(), s.np());
        // the agent is a planning input: the launcher's builder emits its option for the flavour (no splicing)
        LaunchContext ctx = new LaunchContext(s, hosts, mpi, env, null, null, name -> false, null,
                new LaunchAgent(agent, agentEnv, false));
        return new MpirunCommandBuilder(asRoot).build(ctx);
    }

    /**
     * The launch agent's JVM options, the same as {@code bin/troika-rsh}'s (a test holds them equal): C1 only, serial
     * GC, small stacks and heap, no perf-data file; Open MPI may start many agents at once.
     */
    static final List<String> AGENT_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-Xshare:auto", "-XX:-UsePerfData", "-Xss256k", "-Xms4m", "-Xmx48m", "-XX:ReservedCodeCacheSize=16m",
            "-XX:MaxMetaspaceSize=32m");

    /** The agent script: runs troika-rsh's launch agent with the given java and class path. */
    static String agentScript(String java, String classpath) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(AGENT_JVM_OPTIONS);
        cmd.addAll(List.of("-cp", classpath, "org.troika.rsh.agent.RshMain"));
        return "#!/bin/sh\nexec " + ShellQuote.join(cmd) + " \"$@\"\n";
    }
}
