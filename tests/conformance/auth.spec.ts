// The auth route group: every check is generated from contracts/requirements.yaml.
import { defineGroupSuite } from '../../src/engine/define-suite';

defineGroupSuite('auth');
