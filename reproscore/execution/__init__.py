"""The execution tier: sandboxed outcome probes (ROS components), imported outcomes.

* :mod:`.sandbox`: bubblewrap, the scratch directory, limits and a clean environment;
* :mod:`.probes`: the six probes I, E′, X, N, Δ, T and the failure classes;
* :mod:`.outcomes`: the ``reproscore-outcome/1`` JSON schema of imported outcomes and
  the conversion of stored components into a rubric's ROS inputs.

The ROS, alpha and RCS arithmetic is :mod:`scoring.aggregate`'s; ``docs/execution.md``
describes the guarantees and limits of the sandbox. The submodules are imported on use
(the store imports :mod:`.outcomes` only).
"""
