/**
 * Names of the Terraform outputs our constructs create. cdktf would name an output inside a
 * construct `<path>_<id>_<hash>`; users read outputs by name (`terraform output`), so each is
 * named after the construct ID instead: `control-plane` + `sensor-command` gives
 * `control_plane_sensor_command`.
 */
function snakeCase(id: string): string {
  return id.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase();
}

/** The output name for output `name` of the construct with ID `constructId`. */
export function outputName(constructId: string, name: string): string {
  return `${snakeCase(constructId)}_${snakeCase(name)}`;
}
