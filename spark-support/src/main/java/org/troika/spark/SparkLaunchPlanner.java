package org.troika.spark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.troika.common.ShellQuote;
import org.troika.common.TroikaEnv;
import org.troika.common.UsageException;
import org.troika.launcher.options.RunOptionTable;
import org.troika.launcher.spi.RunSettings;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.mpi.MpirunCommandBuilder;
import org.troika.launcher.mpi.RankLaunch;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchAgent;
import org.troika.launcher.spi.LaunchContext;

/**
 * Plans the mpirun of a Spark job (pure): a {@link RunSettings} from the {@link RunOptions} and the host layout, and
 * the launcher's own {@link MpirunCommandBuilder}, with the relay's launch agent as a planning input when the ranks
 * run in executors ({@link #plan}), without one when mpirun starts them on its own machine ({@link #localPlan}).
 */
final class SparkLaunchPlanner {
    static final String RANK_MAIN = "org.troika.spark.RankMain";
    /** The host word mpirun starts ranks on itself, without a daemon or launch agent. */
    static final String LOCALHOST = "localhost";

    private SparkLaunchPlanner() {}

    /**
     * {@code /bin/sh -c SCRIPT troika-spark-rank java [CDS options] [start-up options] [options] -cp CP
     * org.troika.spark.RankMain}. The
     * shell {@code exec}s the JVM (same pid). It is there because Open MPI rewrites the command of an application named
     * {@code java}: it puts the working directory first on the class path (which a class-data-sharing archive refuses,
     * and which would let classes there shadow troika's) and adds its own {@code -Djava.library.path}. When {@code cds}
     * records an archive, the script adds {@code -XX:ArchiveClassesAtExit} for rank 0 ({@code OMPI_COMM_WORLD_RANK}).
     */
    static List<String> rankCommand(String java, List<String> jvmOptions, String classpath, RankCds.Plan cds) {
        return rankCommand(java, jvmOptions, classpath, cds, List.of());
    }

    /** {@link #rankCommand(String, List, String, RankCds.Plan)} with troika's {@code startup} options before the user's. */
    static List<String> rankCommand(String java, List<String> jvmOptions, String classpath, RankCds.Plan cds,
            List<String> startup) {
        String script = "exec \"$@\"";
        if (cds.recording() != null) {
            script = "if [ \"${OMPI_COMM_WORLD_RANK:-}\" = 0 ]; then j=$1; shift; exec \"$j\" "
                    + ShellQuote.quote("-XX:ArchiveClassesAtExit=" + cds.recording()) + " \"$@\"; fi; " + script;
        }
        List<String> cmd = new ArrayList<>(List.of("/bin/sh", "-c", script, "troika-spark-rank", java));
        cmd.addAll(cds.jvmOptions());
        cmd.addAll(startup);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", classpath, RANK_MAIN));
        return cmd;
    }

    /** The settings of a relayed launch: one host per host hash of the layout, the relay's launch agent. */
    static RunSettings settings(RunOptions o, HostLayout layout, int np, List<String> rankCommand) {
        return settings(o, new RunSettings.Hosts(np, layout.hosts(), "Spark task host hashes"), rankCommand)
                .with(RunOptionTable.LAUNCH_AGENT, RunSettings.LaunchAgent.RELAY);
    }

    /** The settings of a launch on this machine: {@value #LOCALHOST} with np slots, no launch agent. */
    static RunSettings localSettings(RunOptions o, int np, List<String> rankCommand) {
        return settings(o, new RunSettings.Hosts(np, List.of(new HostSlots(LOCALHOST, np)),
                "the Spark driver's machine"), rankCommand);
    }

    /** The options as the launcher's settings: the same records, so the same checks as {@code troika run}. */
    private static RunSettings settings(RunOptions o, RunSettings.Hosts hosts, List<String> rankCommand) {
        return RunSettings.of(rankCommand).with(hosts).with(RunOptionTable.NETWORK_INTERFACES, o.networkInterfaces())
                .with(RunOptionTable.MPI_ARGS, o.mpiArgs()).with(RunOptionTable.VERBOSE, o.verbose())
                .with(RunOptionTable.PREFIX_TIMESTAMP, o.prefixTimestamp())
                .with(RunOptionTable.START_TIMEOUT, o.startTimeout());
    }

    /** Refuses MPIs without Open MPI's launch agent before anything starts (one line naming the fix). */
    static void requireOpenMpi(MpiInstall mpi) {
        if (!mpi.flavor().isOpenMpiFamily()) {
            throw new UsageException("troika-spark starts MPI daemons through Open MPI's launch agent; "
                    + mpi.flavor().displayName() + " has none: put Open MPI's mpirun first on PATH or in "
                    + TroikaEnv.MPIRUN);
        }
    }

    /**
     * The mpirun plan when every task runs in the driver's JVM (Spark local mode): mpirun starts the ranks on its own
     * machine as its children ({@code -H localhost:np}), with no orted, launch agent or task service. The ranks still
     * see the tasks' host hash: {@link TroikaEnv#HOSTS} and {@link TroikaEnv#HOST_SLOTS} are {@code layout}'s, as in a
     * relayed launch.
     *
     * @param s from {@link #localSettings}
     * @param env mpirun's environment (exported to the ranks by name), without the secret
     */
    static BackendPlan localPlan(RunSettings s, MpiInstall mpi, boolean asRoot, Map<String, String> env,
            HostLayout layout) {
        requireOpenMpi(mpi);
        HostPlan hosts = HostPlan.assign(s.hosts().source(), s.hosts().list(), s.hosts().np());
        LaunchContext ctx = new LaunchContext(s, hosts, mpi, env, null, null, name -> false, null, null);
        BackendPlan p = new MpirunCommandBuilder(asRoot).build(ctx);
        Map<String, String> launchEnv = new java.util.HashMap<>(p.launch().env());
        launchEnv.remove(TroikaEnv.HOSTS);
        launchEnv.putAll(RankLaunch.placeEnv(HostPlan.assign("spark", layout.hosts(), s.hosts().np())));
        return p.withLaunch(p.launch().withEnv(launchEnv));
    }

    /**
     * The mpirun plan: the launcher's plan for {@code s} with {@code --mca plm_rsh_agent AGENT} (PRRTE:
     * {@code --prtemca plm_ssh_agent}) after the mpirun word and the agent's variables in mpirun's environment.
     *
     * @param env mpirun's environment (exported to the ranks by name), without the secret
     * @param agentEnv driver address, launch agent key file, liveness: for the agent only, never exported
     */
    static BackendPlan plan(RunSettings s, MpiInstall mpi, boolean asRoot, Map<String, String> env, Path agent,
            Map<String, String> agentEnv) {
        requireOpenMpi(mpi);
        HostPlan hosts = HostPlan.assign(s.hosts().source(), s.hosts().list(), s.hosts().np());
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
