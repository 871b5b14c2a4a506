/**
 * Terraform outputs of a channel's SAML service-provider URLs (entity id, ACS URL, metadata
 * URL), for an identity-provider resource in another stack or a pipeline
 * (`terraform output -raw saml_main_acs_url`). Named after the construct ID, like the control
 * plane's outputs: ID `saml-main` gives `saml_main_entity_id`, `saml_main_acs_url` and
 * `saml_main_metadata_url`. The values are null while the svc provider has no `sso_base`
 * (SVC_SSO_BASE), and terraform then lists no such output.
 */
import { Construct } from 'constructs';
import { TerraformOutput } from 'cdktf';
import { outputName } from '../output-names';
import type { SecurityPolicy } from './security-policy';

/** The channel whose SAML service-provider URLs become outputs. */
export interface ChannelServiceProviderOutputsProps {
  /** The policy that declares the channel's SSO. */
  readonly policy: SecurityPolicy;
  /** A channel declared in the policy's channelSso. */
  readonly channel: string;
}

/** Outputs `<id>_entity_id`, `<id>_acs_url` and `<id>_metadata_url` of a channel's SAML service provider. */
export class ChannelServiceProviderOutputs extends Construct {
  /** `<id>_entity_id`: the entity ID, the identity provider's audience. */
  readonly entityId: TerraformOutput;
  /** `<id>_acs_url`: where the identity provider posts its assertions. */
  readonly acsUrl: TerraformOutput;
  /** `<id>_metadata_url`: the service provider's SAML metadata. */
  readonly metadataUrl: TerraformOutput;

  /** Adds the three outputs of `props.channel`, whose SSO `props.policy` manages. */
  constructor(scope: Construct, id: string, props: ChannelServiceProviderOutputsProps) {
    super(scope, id);
    const urls = props.policy.channelServiceProvider(props.channel);
    const output = (name: string, value: string, description: string) => {
      const created = new TerraformOutput(this, name, { value, description });
      created.overrideLogicalId(outputName(id, name));
      return created;
    };
    const channel = JSON.stringify(props.channel);
    this.entityId = output('entity_id', urls.entityId, `SAML service-provider entity ID of channel ${channel} (the identity provider's audience)`);
    this.acsUrl = output('acs_url', urls.acsUrl, `SAML assertion consumer service URL of channel ${channel} (where the identity provider posts)`);
    this.metadataUrl = output('metadata_url', urls.metadataUrl, `SAML service-provider metadata URL of channel ${channel}`);
  }
}
