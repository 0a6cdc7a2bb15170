/**
 * `reasonix doctor`: what a run in this directory needs, checked with the code the run uses.
 *
 * @module
 */
export {
  type DoctorCheck,
  type DoctorOptions,
  type DoctorProblem,
  type DoctorReport,
  type McpReport,
  type ProviderReport,
  runDoctor,
  type SandboxReport,
} from "./checks.ts";
export { doctorCommand, type DoctorRequest, renderDoctor } from "./command.ts";
