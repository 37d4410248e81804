package diff;

import mpi.MPI;

/**
 * The differential program: every section on every rank, same output expected from Open MPI 5.0.7's own Java
 * binding and from troika's drop-in on Open MPI 4, Open MPI 5 and MPICH. Argument: the output folder.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        Out.open(args[0], rank);
        try {
            Constants.run();
            Datatypes.run();
            PointToPoint.run();
            NonBlocking.run();
            Collectives.run();
            Reductions.run();
            Communicators.run();
            Topologies.run();
            Structs.run();
            Windows.run();
            Files.run(args[0]);
            Errors.run();
            Out.section("done");
            if (args.length > 1 && args[1].equals("extras")) {
                // compiled against the drop-in: only troika's runs ask for them
                Out.close();
                Class.forName("extras.Extras").getMethod("run", String.class, int.class).invoke(null, args[0], rank);
            }
        } catch (Throwable t) {
            if (t instanceof java.lang.reflect.InvocationTargetException e && e.getCause() != null) {
                t = e.getCause();
            }
            Out.p("FAILED in " + Out.section() + ": " + t);
            for (StackTraceElement e : t.getStackTrace()) {
                Out.p("  at " + e);
            }
            Out.close();
            System.err.println("rank " + rank + " failed in " + Out.section() + ": " + t);
            t.printStackTrace();
            MPI.COMM_WORLD.abort(3);
        }
        if (args.length < 2) {
            Out.close();
        }
        MPI.COMM_WORLD.barrier();
        MPI.Finalize();
    }
}
