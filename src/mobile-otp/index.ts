export { MobileOtpModule } from './mobile-otp.module.js';
