export { AuthService } from './auth.service.js';
export { LoginDto } from './auth.dto.js';
export { RegisterDto } from './auth.dto.js';
export { TrustedOrigins, claimedOrigin, isWriteMethod, originOf } from './cookie-origin.js';
export { SignInModule } from './sign-in.module.js';
